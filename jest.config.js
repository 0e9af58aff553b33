/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  globalSetup: '<rootDir>/test/support/globalSetup.ts',
  setupFiles: ['<rootDir>/test/support/setupFile.ts'],
  globalTeardown: '<rootDir>/test/support/globalTeardown.ts',
  testTimeout: 60000,
  // Temporal's native runtime and pg pools keep handles; each suite closes what it opens.
  forceExit: true,
};
