// Loaded into every test process the runner starts (scripts/test.mjs): stack
// traces name the TypeScript sources, not the compiled copies that run. The
// maps are read only when a stack trace is printed, so a passing file never
// pays for them (Node's own --enable-source-maps reads every map at load).
import sourceMapSupport from 'source-map-support';

sourceMapSupport.install({ environment: 'node', handleUncaughtExceptions: false });
