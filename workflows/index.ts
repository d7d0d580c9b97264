export { toolCallWorkflow } from './tool-call';
