import fs from 'node:fs';
import path from 'node:path';
import { isExecutable, runWithProgress } from './proc';
import { findOrFetchGo, goCacheDir, goInstallEnv } from './temporalServer';
import type { Log } from './toolVenv';

/**
 * Helm v3, for the chart's tests (deploy/helm/switchboard; test/integration/helmChart.test.ts): built from its Go module
 * through the Go module proxy, once, into the tool cache next to the Temporal server (`<tool cache>/go`, sharing its
 * module and build caches), as dev/infra/temporalServer.ts builds that server.
 */
export const HELM_VERSION = 'v3.22.0';
const HELM_MODULE = 'helm.sh/helm/v3';
/**
 * The Kubernetes version `helm template` and `helm lint` assume without `--kube-version`: Helm's Makefile stamps the
 * one of the k8s.io/client-go its go.mod requires (v0.37.0 in v3.22.0: 1.37); without it Helm says 1.20.
 */
const HELM_DEFAULT_KUBE_VERSION = { major: '1', minor: '37' };

function helmBinDir(toolCacheDir: string): string {
  return path.join(goCacheDir(toolCacheDir), `helm-${HELM_VERSION}`);
}

/** The cached `helm` program, or undefined when it is not there. */
export function cachedHelmBuild(toolCacheDir: string): string | undefined {
  const helm = path.join(helmBinDir(toolCacheDir), 'helm');
  return isExecutable(helm) ? helm : undefined;
}

/** One build per process, however many callers wait for it (and one log line). */
const building = new Map<string, Promise<string>>();

/** The cached `helm`, building it first when missing (minutes on 2 cores, once; never blocks the event loop). */
export function ensureHelmBuild(toolCacheDir: string, log: Log): Promise<string> {
  const cached = cachedHelmBuild(toolCacheDir);
  if (cached) return Promise.resolve(cached);
  let pending = building.get(toolCacheDir);
  if (!pending) {
    pending = buildHelm(toolCacheDir, log).finally(() => building.delete(toolCacheDir));
    building.set(toolCacheDir, pending);
  }
  return pending;
}

async function buildHelm(toolCacheDir: string, log: Log): Promise<string> {
  const root = goCacheDir(toolCacheDir);
  const binDir = helmBinDir(toolCacheDir);
  fs.mkdirSync(root, { recursive: true });
  const go = await findOrFetchGo(root, log);
  // Built next to the final directory and renamed into place, so an interrupted build is never mistaken for a finished one.
  const partial = `${binDir}.partial-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  log(`Helm ${HELM_VERSION} is built once into ${binDir} (a few minutes on 2 cores; later runs use it)`);
  // withProgress (dev/infra/proc.ts) says it is still building every 30 s and how long it took.
  await runWithProgress(
    `building Helm ${HELM_VERSION} (go install)`,
    log,
    go,
    // What Helm's own release build stamps in: its version, so `helm version` names it, and the default Kubernetes version.
    ['install', '-ldflags', helmLdflags(), `${HELM_MODULE}/cmd/helm@${HELM_VERSION}`],
    { env: goInstallEnv(root, partial) },
  );
  const helm = cachedHelmBuild(toolCacheDir);
  // Another process finished the same build first: keep its copy.
  if (helm) {
    fs.rmSync(partial, { recursive: true, force: true });
    return helm;
  }
  fs.rmSync(binDir, { recursive: true, force: true });
  fs.renameSync(partial, binDir);
  return path.join(binDir, 'helm');
}

function helmLdflags(): string {
  const { major, minor } = HELM_DEFAULT_KUBE_VERSION;
  const kube = ['pkg/lint/rules', 'pkg/chartutil'].flatMap((pkg) => [
    `-X ${HELM_MODULE}/${pkg}.k8sVersionMajor=${major}`,
    `-X ${HELM_MODULE}/${pkg}.k8sVersionMinor=${minor}`,
  ]);
  return ['-s', '-w', `-X ${HELM_MODULE}/internal/version.version=${HELM_VERSION}`, ...kube].join(' ');
}
