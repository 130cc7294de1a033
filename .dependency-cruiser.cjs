// The layering of src/, checked by `npm run lint`; ARCHITECTURE.md, "Layers", says why each rule holds.
// domain ← db ← store ← links, resolve, notify (the application layer) ← http / mcp / cli, with the
// services (auth, workers, llm, net, doctor) beside the application layer and views used
// only by the web surface. Type-only imports count: a cycle through types is
// still a cycle a reader has to untangle.
const TOP = '^src/(http/|mcp/|cli/|cli\\.ts$|app\\.tsx$|server\\.ts$)';
const notUnder = (...dirs) => `^src/(?!(${dirs.join('|')})(/|\\.tsx?$))`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'No import cycles, type-only ones included.', from: {}, to: { circular: true } },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'domain/ holds pure rules: it imports nothing else of ours.',
      from: { path: '^src/domain/' },
      to: { path: notUnder('domain') },
    },
    {
      name: 'db-below-store',
      severity: 'error',
      comment: 'db/ (connections, schema, migrations) depends on domain and configuration only.',
      from: { path: '^src/db/' },
      to: { path: notUnder('db', 'domain', 'config', 'paths') },
    },
    {
      name: 'store-below-application',
      severity: 'error',
      comment: 'store/ builds the queries (db/) and applies domain/ rules and types; it never reaches the application layer or a surface.',
      from: { path: '^src/store/' },
      to: { path: notUnder('store', 'db', 'domain', 'config') },
    },
    {
      name: 'application-below-surfaces',
      severity: 'error',
      comment: 'The application layer (links/, resolve/, notify/) uses store/ and domain/; the surfaces call it, never the other way.',
      from: { path: '^src/(links|resolve|notify)/' },
      to: { path: notUnder('links', 'resolve', 'notify', 'store', 'domain') },
    },
    {
      name: 'services-below-surfaces',
      severity: 'error',
      comment: 'auth/, workers/, llm/, net/ and doctor/ never reach up into a surface or into page markup.',
      from: { path: '^src/(auth|workers|llm|net|doctor)/' },
      to: { path: `${TOP}|^src/views/` },
    },
    {
      name: 'views-render-only',
      severity: 'error',
      comment: 'views/ renders what it is given: domain rules and store types, nothing that acts.',
      from: { path: '^src/views/' },
      to: { path: `${TOP}|^src/(auth|workers|llm|net|links|resolve|notify|db)/` },
    },
    {
      name: 'views-take-store-types-only',
      severity: 'error',
      from: { path: '^src/views/' },
      to: { path: '^src/store/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'rest-and-web-apart',
      severity: 'error',
      comment: 'The REST API and the web pages never import each other: what both use lives in http/shared/.',
      from: { path: '^src/http/(api|web)/' },
      to: { path: '^src/http/(api|web)/', pathNot: '^src/http/$1/' },
    },
    {
      name: 'http-shared-below-both',
      severity: 'error',
      comment: 'http/shared/ serves the REST API and the web pages alike, so it imports neither.',
      from: { path: '^src/http/shared/' },
      to: { path: '^src/http/(api|web)/' },
    },
    {
      name: 'mcp-beside-http',
      severity: 'error',
      comment: 'MCP tools are a surface of their own: they call the application layer, not the REST routes.',
      from: { path: '^src/mcp/' },
      to: { path: `${TOP.replace('mcp/|', '')}|^src/views/` },
    },
    {
      name: 'src-not-to-tests',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
    { name: 'not-to-unresolvable', severity: 'error', from: {}, to: { couldNotResolve: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.tsx', '.js'],
    },
  },
};
