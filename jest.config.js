/** Tests run against real Postgres and a real Temporal dev server (see test/helpers); a module's own tests sit beside it, in modules/<m>/__tests__/. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/modules'],
  testMatch: ['**/*.test.ts'],
  // jose, the OpenAPI validator and the MCP Apps SDK ship only as ES modules; Jest's require cannot load one, so they are compiled like our own code.
  transformIgnorePatterns: ['/node_modules/(?!(jose|@seriousme|@modelcontextprotocol/ext-apps)/)'],
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }] },
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  testTimeout: 60000,
  // Two suites at a time, against the one dev server: most of a suite's time is spent waiting on Postgres and
  // Temporal, so two workers roughly halve the run on two cores. Each worker has one API + worker stack of its own
  // (test/helpers/shared-stack.ts), on its own database and task queue, which the suites it runs share, each in
  // organisations of its own; a suite that must not share starts its own (`Harness.start({ own: true })`).
  maxWorkers: 2,
  // With 200 suites a worker's heap grows suite by suite (a CI run lost one to "ran out of memory"): a worker
  // past this after a suite is replaced by a fresh one (its shared stack is started again for the next suite).
  workerIdleMemoryLimit: '1500MB',
};
