import type { Config } from '../../platform/config';
import { egressPolicyFor } from '../../platform/net/egress';
import type { Environment } from '../keys/format';
import type { LineFieldProblem } from './rules';

/**
 * H2: a line's customer URLs must lead to public addresses, never to Switchboard's own services
 * (src/platform/net/egress.ts). Only the URLs given are checked: a stored one was checked when it
 * was saved (and is again at every connection).
 */
export async function unreachableUrlProblems(
  config: Config,
  environment: Environment,
  fields: { webhook_url?: unknown; status_callback_url?: unknown; audio_handler_url?: unknown },
): Promise<LineFieldProblem[]> {
  const { webhook_url, status_callback_url, audio_handler_url } = fields;
  return egressPolicyFor(config).fieldProblems({ webhook_url, status_callback_url, audio_handler_url }, environment);
}
