import { buildWorkflowBundle } from './bundle';

buildWorkflowBundle(process.argv[2]).then((file) => console.log(`workflow bundle written to ${file}`)).catch((error) => {
  console.error(error);
  process.exit(1);
});
