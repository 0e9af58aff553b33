/**
 * The layer boundaries of docs/architecture.md, checked by `npm run lint` (depcruise).
 * Paths are from the project root. Type-only imports are erased at build time, so a few rules
 * allow them (a workflow may name an activity's type; a use case may name a workflow's type).
 */
const PURE_FOR_WORKFLOWS = [
  '^workflows/',
  '^src/domain/[^/]+/rules\\.ts$',
  '^src/domain/billing/(pricing|periods)\\.ts$',
  '^src/domain/calls/settlement\\.ts$',
  '^src/domain/webhooks/events\\.ts$',
  '^src/adapters/carrier/callbacks/wire\\.ts$',
  '(^|/)node_modules/@temporalio/(workflow|common)/',
];
const SHARED_WITH_OTHER_PROGRAMS = [
  '^src/platform/audio/',
  '^src/platform/logger\\.ts$',
  '^src/domain/webhooks/signature\\.ts$',
  '^src/adapters/carrier/callbacks/',
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Modules that import each other cannot be read, tested or moved apart.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'workflows-deterministic',
      severity: 'error',
      comment: "Workflow code replays: it imports only workflow code, Temporal's workflow API and pure rules (types of anything).",
      from: { path: '^workflows/' },
      to: { pathNot: PURE_FOR_WORKFLOWS, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-below-transports',
      severity: 'error',
      comment: 'The domain knows no HTTP, no activity and no process wiring.',
      from: { path: '^src/domain/' },
      to: { path: '^(api|activities|src/main)/' },
    },
    {
      name: 'domain-starts-workflows-by-definition',
      severity: 'error',
      comment: 'Use cases start and signal workflows through workflows/definitions; rules never do.',
      from: { path: '^src/domain/' },
      to: { path: '^workflows/', pathNot: '^workflows/definitions/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'webhooks-deliver-any-event',
      severity: 'error',
      comment:
        'Delivery knows no carrier and no call: what a call adds to a delivery (its spoken reply, its transcript) is src/domain/calls/messageTurn.ts.',
      from: { path: '^src/domain/webhooks/' },
      to: { path: '^src/adapters/|^src/domain/calls/' },
    },
    {
      name: 'http-only-in-api',
      severity: 'error',
      comment:
        'Routes call use cases; they never reach activities, adapter implementations or workflow code (provider callback verifiers and wire formats excepted).',
      from: { path: '^api/' },
      to: {
        path: '^(activities|src/main)/|^src/adapters/(?!.*/port\\.ts$)(?!carrier/callbacks/)(?!carrier/twilio/callbacks/)(?!payments/callbacks/)',
      },
    },
    {
      name: 'api-workflows-by-definition',
      severity: 'error',
      from: { path: '^api/' },
      to: { path: '^workflows/', pathNot: '^workflows/definitions/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'activities-below-api',
      severity: 'error',
      comment: 'Activities unpack, call the domain or an adapter, and return.',
      from: { path: '^activities/' },
      to: { path: '^(api|src/main)/' },
    },
    {
      name: 'activities-workflows-by-definition',
      severity: 'error',
      from: { path: '^activities/' },
      to: { path: '^workflows/', pathNot: '^workflows/definitions/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'adapters-below-domain-use',
      severity: 'error',
      comment: 'Adapters implement ports; they know nothing of HTTP, activities, workflows or wiring.',
      from: { path: '^src/adapters/' },
      to: { path: '^(api|activities|workflows|src/main)/' },
    },
    {
      name: 'platform-has-no-business',
      severity: 'error',
      comment: 'db, temporal, crypto, codecs, config, logger: no business words, so nothing above them.',
      from: { path: '^src/platform/' },
      to: { path: '^(api|activities|workflows|src/(domain|adapters|main))/' },
    },
    {
      name: 'nothing-imports-main',
      severity: 'error',
      comment: 'src/main/ holds the processes and their wiring; only tests and benches start them.',
      from: { path: '^(api|workflows|activities|src/(domain|adapters|platform)|simulator|sdk)/' },
      to: { path: '^src/main/' },
    },
    {
      name: 'simulator-is-another-program',
      severity: 'error',
      comment: 'The simulator is the other party: from the service it shares only codecs and signature schemes.',
      from: { path: '^simulator/', pathNot: '^simulator/main\\.ts$' },
      to: { path: '^(src|api|activities|workflows)/', pathNot: SHARED_WITH_OTHER_PROGRAMS },
    },
    {
      name: 'simulator-entry-point',
      severity: 'error',
      comment: 'Its entry point also reads the shared configuration and passes the same startup check as every process.',
      from: { path: '^simulator/main\\.ts$' },
      to: {
        path: '^(src|api|activities|workflows)/',
        pathNot: [...SHARED_WITH_OTHER_PROGRAMS, '^src/platform/(config|startupCheck)\\.ts$'],
      },
    },
    {
      name: 'sdk-is-the-customers',
      severity: 'error',
      comment: 'What customers import depends on nothing of the service but the signature scheme.',
      from: { path: '^sdk/' },
      to: { path: '^(src|api|activities|workflows|simulator)/', pathNot: '^src/domain/webhooks/signature\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|test/histories|dist|coverage|\\.data)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.json'],
    },
  },
};
