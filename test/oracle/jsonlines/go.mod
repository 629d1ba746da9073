// The JSON-lines request loop shared by the oracle programs (no dependencies).
module kyma-fleet.dev/oracle/jsonlines

go 1.26
