// jose ships only as an ES module while this project compiles to CommonJS. Node
// (>= 20.19) loads an ES module through require(), so we require it and take
// its types with an import-mode type import. Jest transforms jose to CommonJS
// (transformIgnorePatterns in jest.config.js) because its own require cannot.
import type * as Jose from 'jose' with { 'resolution-mode': 'import' };

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const jose: typeof Jose = require('jose');
export type { JWK, JWTPayload } from 'jose' with { 'resolution-mode': 'import' };
