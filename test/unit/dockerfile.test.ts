import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../src/platform/config';
import { BUILD_DIR, BUILD_ENTRY_POINTS, NODE_FLAGS, WORKFLOW_BUNDLE_FILE } from '../../src/platform/buildLayout';
import { readComposeFile } from '../support/composeFile';
import { dockerStages, readDockerfile, stageEnv, type DockerStage } from '../support/dockerfile';

/**
 * Docker does not run here, so the image is tested by reading its Dockerfile (issue 33): a build stage runs
 * `npm run build`; the runtime stage has production dependencies only, none of TypeScript's tools, the build's dist/
 * and no source, runs as a non-root user and starts the build's JavaScript with plain node. The build output itself is
 * run by test/integration/productionBuild.test.ts.
 */
const packageJson = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  allowScripts: Record<string, boolean>;
};

/** TypeScript's tools: none runs, or is installed, in the runtime stage. */
const TYPESCRIPT_TOOLS = ['tsx', 'typescript', 'esbuild', 'ts-node', 'ts-jest'];

/** What is wrong with a Dockerfile's text, as readable lines (none: it is the image issue 33 asks for). */
function problemsOf(text: string): string[] {
  const problems: string[] = [];
  const stages = dockerStages(text);
  if (stages.length < 2) return [`${stages.length} stage(s): a build stage and a runtime stage expected`];
  const runtime = stages.at(-1)!;
  const build = stages.find((stage) => stage.name !== undefined && runtimeCopiesFrom(runtime).includes(stage.name));
  if (!build) problems.push('the runtime stage copies from no build stage');
  else if (!runs(build).some((command) => /\bnpm run (-s )?build\b/.test(command)))
    problems.push('the build stage does not run `npm run build`');
  for (const stage of stages)
    for (const command of runs(stage).filter((run) => /\bnpm (install|ci)\b/.test(run)))
      if (!command.includes('--ignore-scripts')) problems.push(`an install runs every package's scripts: ${command}`);
  problems.push(...runtimeProblems(runtime));
  return problems;
}

function runtimeProblems(runtime: DockerStage): string[] {
  const problems: string[] = [];
  const installs = runs(runtime).filter((command) => /\bnpm (install|ci)\b/.test(command));
  // An optional peer of a production dependency comes with --omit=dev: the stage must take it out again.
  for (const tool of ['typescript'])
    if (!installs.some((command) => command.includes(`rm -rf node_modules/${tool}`))) problems.push(`the runtime stage keeps ${tool}`);
  // Only the native bridge the SDK loads on this platform stays, and the stage fails if it no longer loads.
  if (!installs.some((command) => /getPrebuiltTargetName\(\).*! -name "\$keep".*require\('@temporalio\/core-bridge'\)/.test(command)))
    problems.push("the runtime stage keeps every platform's Temporal bridge, or does not check that its own still loads");
  if (installs.length === 0) problems.push('the runtime stage installs no dependencies');
  for (const command of installs)
    if (!command.includes('--omit=dev')) problems.push(`the runtime stage installs devDependencies: ${command}`);
  // Every approved install script (package.json's allowScripts) runs, and only those.
  for (const command of runs(runtime).filter((run) => /\bnpm rebuild\b/.test(run))) {
    const rebuilt = /\bnpm rebuild ((?:[@\w./-]+ ?)+)/.exec(command)![1].trim().split(/\s+/).sort();
    if (rebuilt.join(' ') !== Object.keys(packageJson.allowScripts).sort().join(' '))
      problems.push(`the runtime stage rebuilds ${rebuilt.join(' ')}, not allowScripts' packages`);
  }
  for (const { keyword, args } of runtime.instructions) {
    // Removing one (`rm -rf node_modules/typescript`: an optional peer `--omit=dev` keeps) is not running it.
    const words = args.replace(/\brm -rf (node_modules\/\S+ ?)+/g, '').split(/[\s",[\]]+/);
    for (const tool of TYPESCRIPT_TOOLS)
      if (words.includes(tool) || words.includes(`${tool}/esm`)) problems.push(`the runtime stage names ${tool}: ${keyword} ${args}`);
    if (keyword === 'COPY' && !args.startsWith('--from=') && !/^package\.json package-lock\.json \.\/?$/.test(args))
      problems.push(`the runtime stage copies sources from the context: COPY ${args}`);
    if (/\.ts\b/.test(args)) problems.push(`the runtime stage names a TypeScript file: ${keyword} ${args}`);
  }
  const workdir = last(runtime, 'WORKDIR');
  if (!runtimeCopiesFrom(runtime).length || !runtime.instructions.some((i) => i.keyword === 'COPY' && i.args.endsWith(` ./${BUILD_DIR}`)))
    problems.push(`the runtime stage does not copy the build's ${BUILD_DIR}/`);
  const user = last(runtime, 'USER');
  if (!user || /^(root|0)(:|$)/.test(user)) problems.push(`the runtime stage runs as ${user ?? 'root (no USER)'}`);
  const keywords = runtime.instructions.map((i) => i.keyword);
  const userAt = keywords.lastIndexOf('USER');
  const cmdAt = keywords.lastIndexOf('CMD');
  if (cmdAt < userAt) problems.push('CMD comes before USER');
  const cmd = last(runtime, 'CMD');
  if (cmd !== JSON.stringify(['node', ...NODE_FLAGS.api, `${BUILD_DIR}/${BUILD_ENTRY_POINTS.api}`]).replace(/,/g, ', '))
    problems.push(`CMD is ${cmd}, not node on the build's API entry point`);
  const bundle = stageEnv(runtime).WORKFLOW_BUNDLE_PATH;
  if (bundle !== path.posix.join(workdir ?? '/', BUILD_DIR, WORKFLOW_BUNDLE_FILE))
    problems.push(`WORKFLOW_BUNDLE_PATH is ${bundle}, not the build's bundle`);
  return problems;
}

const runs = (stage: DockerStage) => stage.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
const last = (stage: DockerStage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword).at(-1)?.args;
const runtimeCopiesFrom = (stage: DockerStage) =>
  stage.instructions.flatMap((i) => (i.keyword === 'COPY' ? [/^--from=(\S+)/.exec(i.args)?.[1]].filter((name) => name !== undefined) : []));

describe('Dockerfile', () => {
  const text = readDockerfile();

  it('builds in one stage and runs the build output with production dependencies only, as a non-root user, in another', () => {
    expect(problemsOf(text)).toEqual([]);
    expect(dockerStages(text).map((stage) => stage.name)).toEqual(['build', 'runtime']);
  });

  it('finds what is wrong with a spoiled image (the check can fail)', () => {
    const singleStage = `FROM node:20\nWORKDIR /app\nCOPY . .\nRUN npm install --omit=dev\nCMD ["node", "--import", "tsx", "src/main/api.ts"]\n`;
    expect(problemsOf(singleStage)).toEqual(['1 stage(s): a build stage and a runtime stage expected']);
    const spoiled = text
      .replace(/^USER node$/m, 'USER root')
      .replace(
        'CMD ["node", "--max-semi-space-size=32", "--no-allocation-site-pretenuring", "dist/src/main/api.js"]',
        'CMD ["node", "--import", "tsx", "src/main/api.ts"]',
      )
      .replace(/npm install --no-save --omit=dev/, 'npm install --no-save')
      .replace('COPY --from=build /app/dist ./dist', 'COPY --from=build /app/dist ./dist\nCOPY . .');
    expect(problemsOf(spoiled)).toEqual([
      expect.stringMatching(/^the runtime stage installs devDependencies/),
      'the runtime stage copies sources from the context: COPY . .',
      expect.stringMatching(/^the runtime stage names tsx: CMD/),
      expect.stringMatching(/^the runtime stage names a TypeScript file: CMD/),
      'the runtime stage runs as root',
      expect.stringMatching(/^CMD is .*tsx.*, not node on the build's API entry point$/),
    ]);
  });

  it("leaves TypeScript's tools out of the production dependencies; `npm run build` makes the build", () => {
    for (const tool of TYPESCRIPT_TOOLS)
      expect({ tool, production: tool in packageJson.dependencies }).toEqual({ tool, production: false });
    expect(packageJson.scripts.build).toBeDefined();
  });

  it("runs every app service of docker-compose.yml on the build's JavaScript with plain node", () => {
    const { raw } = readComposeFile();
    const app = Object.entries(raw.services).filter(([, service]) => service.image === 'switchboard:local');
    expect(app.map(([name]) => name).sort()).toEqual(['api', 'migrate', 'simulator', 'worker']);
    const entries = Object.values(BUILD_ENTRY_POINTS).map((entry) => `${BUILD_DIR}/${entry}`);
    for (const [name, service] of app) {
      const [program, ...rest] = service.command ?? [];
      // After the node flags (NODE_FLAGS; composeFile.test.ts checks which).
      const entry = rest.find((part) => !part.startsWith('--'));
      expect({ name, program, entry: entry !== undefined && entries.includes(entry) ? 'the build' : entry }).toEqual({
        name,
        program: 'node',
        entry: 'the build',
      });
      expect(service.command).not.toContain('tsx');
    }
  });
});
