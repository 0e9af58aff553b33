/** Both projects compile TypeScript the same way (jest never transforms workflow code: the integration setup bundles it). */
const shared = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
    // otplib's base32 and hash plugins are ES modules only: Node requires them, jest's runtime needs them compiled.
    '/node_modules/(@scure|@noble)/.+\\.js$': ['ts-jest', { diagnostics: false, tsconfig: { allowJs: true, module: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(@scure|@noble)/)'],
  // JEST_CPU_LOG=<file>: each file's CPU, for test/support/cpuReport.ts.
  setupFilesAfterEnv: ['<rootDir>/test/support/cpuPerFile.ts'],
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      // Pure tests: no Postgres, no Temporal, no workflow bundle (`npm run test:unit`).
      ...shared,
      displayName: 'unit',
      roots: ['<rootDir>/test/unit'],
      testMatch: ['**/*.test.ts'],
    },
    {
      // Workflow code alone (`npm run test:workflows`): history replay and time-skipping suites with injected
      // activities. The setup bundles the workflows and finds the test server; no Postgres, no Temporal server.
      ...shared,
      displayName: 'workflows',
      roots: ['<rootDir>/test/workflows'],
      testMatch: ['**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/globalSetupWorkflows.ts',
      setupFiles: ['<rootDir>/test/support/setupFile.ts'],
      globalTeardown: '<rootDir>/test/support/globalTeardown.ts',
    },
    {
      // The service end to end: the global setup starts Postgres and Temporal and bundles the workflows once;
      // each jest worker gets its own database and Temporal namespace (test/support/workerResources.ts).
      ...shared,
      displayName: 'integration',
      // test/scale: issue 31's 1,000-contact campaign through kill -9 of the worker and the API (`npm run test:scale`
      // runs it alone): about 200 CPU seconds on a quiet machine (docs/performance.md, "Campaigns").
      roots: ['<rootDir>/test/integration', '<rootDir>/test/scale'],
      testMatch: ['**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/globalSetup.ts',
      setupFiles: ['<rootDir>/test/support/setupFile.ts'],
      globalTeardown: '<rootDir>/test/support/globalTeardown.ts',
    },
  ],
  // Longest files first (durations from an earlier run, else test/durations.json), so the run ends with short files.
  testSequencer: '<rootDir>/test/support/sequencer.js',
  testTimeout: 60000,
  // Each test file leaves some memory behind (Temporal's native runtime, compiled modules): one process for
  // all 130 files outgrew Node's 4 GB heap. A worker past this after a file is replaced by a fresh one.
  workerIdleMemoryLimit: '1GB',
  // Temporal's native runtime and pg pools keep handles; each suite closes what it opens.
  forceExit: true,
};
