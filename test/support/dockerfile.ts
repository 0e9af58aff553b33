import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../src/platform/config';

/** One instruction of a Dockerfile: its keyword (upper case) and its arguments, continuation lines joined. */
export interface DockerInstruction {
  keyword: string;
  args: string;
}

/** One stage: from its `FROM` (base image, `AS` name) to the next. */
export interface DockerStage {
  base: string;
  name?: string;
  instructions: DockerInstruction[];
}

export function readDockerfile(file = path.join(projectRoot, 'Dockerfile')): string {
  return fs.readFileSync(file, 'utf8');
}

/** The stages of a Dockerfile's text, in order (comment lines dropped, `\` continuations joined). */
export function dockerStages(text: string): DockerStage[] {
  const lines = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const stages: DockerStage[] = [];
  for (const line of lines) {
    const [, keyword, args] = /^(\S+)\s*(.*)$/.exec(line)!;
    if (keyword.toUpperCase() === 'FROM') {
      const [base, as, name] = args.split(/\s+/);
      stages.push({ base, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (stages.length > 0) {
      stages[stages.length - 1].instructions.push({ keyword: keyword.toUpperCase(), args });
    }
  }
  return stages;
}

/** `ENV A=1 B=2` of a stage (the image's environment: the last stage's). */
export function stageEnv(stage: DockerStage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { args } of stage.instructions.filter((instruction) => instruction.keyword === 'ENV'))
    for (const pair of args.matchAll(/([A-Z0-9_]+)=(\S+)/g)) env[pair[1]] = pair[2];
  return env;
}
