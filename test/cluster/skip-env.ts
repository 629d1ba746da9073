// The environment variable through which the global setup tells test processes why the real-cluster
// tests are skipped (set only on a machine without Go, and never under CI=true).
export const SKIP_ENV = 'KYMA_FLEET_CLUSTER_SKIP';
