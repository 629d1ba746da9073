// For the Argo CD test files: describeWithArgoCD(name, fn) is describe(), or a skipped describe whose
// name carries the one-line reason when the global setup found no Go (CI unset). Under CI=true the
// global setup fails the run instead, and this fails too if it gets here. The test cluster needs Go
// as well, so one reason covers both.

import { describeWithTool } from '../helpers/describe-with-tool';
import { ARGOCD_SKIP_ENV } from './argocd-fleet';

export function describeWithArgoCD(name: string, fn: () => void): void {
  describeWithTool('Argo CD code (test/argocd)', ARGOCD_SKIP_ENV, name, fn);
}
