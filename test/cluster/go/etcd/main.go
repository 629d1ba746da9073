// etcd of the pinned release, for the kyma-fleet test cluster: the same entry point as etcd's own main
// package (etcdmain, with all of etcd's flags).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
