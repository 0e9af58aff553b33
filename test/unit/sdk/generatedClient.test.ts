import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

describe('the typed client is generated from the served OpenAPI document', () => {
  const root = path.resolve(__dirname, '../../..');
  const check = (...extra: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'src/main/sdkGenerate.ts', '--check', ...extra], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
    });

  it('its generated files match the routes (run `npm run sdk:generate` after changing an operation)', () => {
    const result = check();
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
  }, 130_000);

  it('the check notices a stale file', () => {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-check-'));
    try {
      fs.cpSync(path.join(root, 'sdk/client'), path.join(copy, 'sdk/client'), { recursive: true });
      const operations = path.join(copy, 'sdk/client/operations.ts');
      const original = fs.readFileSync(operations, 'utf8');
      expect(original).toContain("'POST /api/v1/calls',\n");
      fs.writeFileSync(operations, original.replace("'POST /api/v1/calls',\n", ''));
      const result = check('--root', copy);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('sdk/client/operations.ts is stale');
      expect(result.stderr).not.toContain('schema.d.ts');
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  }, 130_000);
});
