import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type * as workflows from '../../workflows';
import type { AutoChargeWorkflow } from '../../workflows/definitions/billing';
import type { CampaignActivities } from '../../activities/campaigns';
import type { CampaignAttemptWorkflow, CampaignCallActivities } from '../../workflows/definitions/campaigns';
import type { DeliverEventWorkflow } from '../../workflows/definitions/webhooks';

/**
 * Every workflow the service starts by name is typed by that workflow (`<typeof xWorkflow>('xWorkflow', …)`, or
 * `<XWorkflow>` for the definitions' signatures), so its `args` are type-checked; and the name is the one the type
 * says, of a workflow the worker runs. Starting by name keeps workflow code out of the API process; a name the type
 * does not check is what this holds.
 */
const root = path.resolve(__dirname, '../..');
const PRODUCT = ['api', 'src', 'activities', 'workflows'];

const sources = (): Array<{ file: string; text: string }> =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...PRODUCT.map((dir) => `${dir}/*.ts`)], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => file && fs.existsSync(path.join(root, file)))
    .map((file) => ({ file, text: fs.readFileSync(path.join(root, file), 'utf8') }));

/** The functions that start a workflow by name: the client's, ours (starts.ts), a schedule's action (schedules.ts). */
const STARTERS = '(?:start|signalWithStart|startOrCompensate|startResolvingAmbiguity|startWorkflow|WithStartWorkflowOperation)';
/** `starter<type>(` then an optional client argument, then the quoted workflow name. */
const START = new RegExp(`\\b${STARTERS}\\s*(<[^>()]*>)?\\(\\s*(?:[\\w.]+(?:\\(\\))?,\\s*)?'(\\w+Workflow)'`, 'g');

const exported = (): string[] =>
  [...fs.readFileSync(path.join(root, 'workflows/index.ts'), 'utf8').matchAll(/\b(\w+Workflow)\b/g)].map((m) => m[1]);
/** Doc comments show the pattern (`start<typeof xWorkflow>('xWorkflow', …)`): only code counts. */
const inComment = (text: string, index: number) => /^\s*(\*|\/\/|\/\*)/.test(text.slice(text.lastIndexOf('\n', index) + 1, index));
const lowerFirst = (name: string) => name[0].toLowerCase() + name.slice(1);

describe('workflow starts by name', () => {
  const starts = sources().flatMap(({ file, text }) =>
    [...text.matchAll(START)]
      .filter((m) => !inComment(text, m.index))
      .map((m) => ({ at: `${file}:${text.slice(0, m.index).split('\n').length}`, type: m[1], name: m[2] })),
  );

  it('finds the starts (the pattern still matches the code)', () => {
    expect(starts.length).toBeGreaterThanOrEqual(15);
  });

  it('types every start by the workflow it names, a workflow the worker runs', () => {
    const names = new Set(exported());
    const wrong = starts.filter(({ type, name }) => {
      const typed = type?.match(/^<(?:typeof (\w+)|(\w+))>$/);
      const typedAs = typed?.[1] ?? (typed?.[2] ? lowerFirst(typed[2]) : undefined);
      return typedAs !== name || !names.has(name);
    });
    expect(wrong).toEqual([]);
  });

  it('leaves no workflow named in a schedule or start outside a typed start', () => {
    const untyped = sources().flatMap(({ file, text }) =>
      [...text.matchAll(/workflowType:\s*'(\w+)'/g)].map((m) => `${file}: workflowType '${m[1]}'`),
    );
    expect(untyped).toEqual([]);
  });

  it("holds the definitions' workflow signatures to the workflows (checked by npm run typecheck)", () => {
    // A constraint violation here is a compile error: a workflow whose parameters or result left its signature.
    type Implements<W extends S, S> = W extends S ? true : never;
    const held: [
      Implements<typeof workflows.deliverEventWorkflow, DeliverEventWorkflow>,
      Implements<typeof workflows.autoChargeWorkflow, AutoChargeWorkflow>,
      Implements<typeof workflows.campaignAttemptWorkflow, CampaignAttemptWorkflow>,
    ] = [true, true, true];
    expect(held).toEqual([true, true, true]);
  });

  it("holds the activities that workflows proxy by a definitions' contract to that contract (checked by npm run typecheck)", () => {
    // The call workflow proxies a campaign's settlement by workflows/definitions/campaigns.ts (importing the activities
    // from workflow code would be a cycle): the activities must keep to it.
    type Implements<A extends C, C> = A extends C ? true : never;
    const held: [Implements<CampaignActivities, CampaignCallActivities>] = [true];
    expect(held).toEqual([true]);
  });
});
