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
/**
 * What api/ may import from src/adapters/: ports' types, each provider's callbacks facade (the index.ts
 * of a callbacks folder: verify, take once, translate, answer) and the list of providers' settings rules.
 */
const API_ADAPTER_ENTRIES = [
  '^src/adapters/[a-zA-Z/]+/port\\.ts$',
  '^src/adapters/[a-zA-Z/]*callbacks/index\\.ts$',
  '^src/adapters/[a-zA-Z/]*callbacks/[a-zA-Z]+/index\\.ts$',
  '^src/adapters/settings\\.ts$',
];
/** Each provider's settings rule and their list, which the startup check every process passes runs (src/adapters/settings.ts). */
const PROVIDER_SETTINGS_RULES = '^src/adapters/(settings|carrier/[a-z]+/settings|payments/stripeSettings|storage/settings)\\.ts$';
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
      name: 'definitions-own-the-contract',
      severity: 'error',
      comment:
        'workflows/definitions is the contract the API, the domain and the activities share: it owns its types and depends on no implementation (no activity, no workflow code), not even for a type.',
      from: { path: '^workflows/definitions/' },
      to: { path: '^(activities/|workflows/(?!definitions/))' },
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
        "Routes call use cases; they never reach activities, adapter implementations or workflow code. From src/adapters/ they import ports, each provider's callbacks facade and the providers' settings rules only.",
      from: { path: '^api/' },
      to: { path: '^(activities|src/main)/|^src/adapters/', pathNot: API_ADAPTER_ENTRIES },
    },
    {
      name: 'openapi-below-routes',
      severity: 'error',
      comment: 'The route table (api/routeTable.ts) is what the OpenAPI document and the routes share; the document reads no route module.',
      from: { path: '^api/openapi/' },
      to: { path: '^api/routes/' },
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
      name: 'product-never-imports-dev',
      severity: 'error',
      comment:
        'dev/ is the developer toolkit (ephemeral stacks, tool installs, history reading) tests and benches share; ' +
        'what ships never needs it, except `npm run up` (src/main/up.ts), which starts a local stack with it.',
      from: { path: '^(api|workflows|activities|src|simulator|sdk)/', pathNot: '^src/main/up\\.ts$' },
      to: { path: '^dev/' },
    },
    {
      name: 'dev-stands-alone',
      severity: 'error',
      comment: 'The toolkit serves tests and benches, so it imports neither.',
      from: { path: '^dev/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'benches-not-tests',
      severity: 'error',
      comment:
        'Benches take what they share with tests from dev/. The in-process harness (test/support/harness.ts: API, ' +
        'worker and simulator in one process) is the one exception bench/calls uses.',
      from: { path: '^bench/' },
      to: { path: '^test/', pathNot: '^test/support/harness\\.ts$' },
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
      comment:
        "Its entry point also reads the shared configuration and passes the same startup check as every process (with the providers' settings rules).",
      from: { path: '^simulator/main\\.ts$' },
      to: {
        path: '^(src|api|activities|workflows)/',
        pathNot: [...SHARED_WITH_OTHER_PROGRAMS, '^src/platform/(config|startupCheck)\\.ts$', PROVIDER_SETTINGS_RULES],
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
