import fs from 'node:fs';
import path from 'node:path';
import { generateSdkFiles } from './sdkSchema';

/**
 * `npm run sdk:generate`: rewrites the typed client's generated files from the current routes.
 * With `--check` it writes nothing and exits 1 when a file is stale (the test suite runs that:
 * openapi-typescript is ESM-only underneath, which jest's CommonJS runtime cannot load).
 */
async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  // `--root DIR` compares or writes under another tree (the test checks a copy it can spoil).
  const rootArg = process.argv.indexOf('--root');
  const root = rootArg > 0 ? path.resolve(process.argv[rootArg + 1]) : path.resolve(__dirname, '../..');
  let stale = 0;
  for (const [file, text] of Object.entries(await generateSdkFiles())) {
    const target = path.join(root, file);
    const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : null;
    if (current === text) continue;
    if (check) {
      console.error(`${file} is stale: run \`npm run sdk:generate\` and commit the result`);
      stale += 1;
    } else {
      fs.writeFileSync(target, text);
      console.log(`wrote ${file}`);
    }
  }
  process.exit(stale > 0 ? 1 : 0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(2);
});
