import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * The operator CLI's start-up loads no Temporal package: every command but the history commands and
 * `payment-method add` talks to Postgres alone, and Temporal's client and workflow modules were about 0.45 s of the
 * CPU of each run (about 1.1 s; the CLI test runs it 26 times). A static import of a module that imports Temporal
 * (as `domain/billing/autoCharge` does) brings them back: this names the chain.
 */
describe('operator CLI start-up', () => {
  it('loads no @temporalio module until a command needs Temporal', () => {
    const root = path.resolve(__dirname, '../..');
    // Loads the CLI as `npm run cli` does (tsx), without running a command (main runs only as the entry point).
    const probe = `require('./src/main/cli');
const loaded = Object.values(require.cache).filter((m) => m && m.filename.includes('/node_modules/@temporalio/'));
const chain = (m) => (m && m.filename.includes('/node_modules/') ? [path.relative(process.cwd(), m.filename), ...chain(m.parent)] : m ? [path.relative(process.cwd(), m.filename)] : []);
const path = require('node:path');
console.log(JSON.stringify(loaded.slice(0, 1).map((m) => chain(m).reverse().slice(0, 4))));`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', probe], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([]);
  });
});
