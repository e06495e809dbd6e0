#!/bin/sh
# LocalStack ready hook. ZERO creates nothing here: `zero dev` (make dev)
# provisions queues, table and bucket from template.yaml through the
# translated build/template.json, so local and deployed resources match.
echo "zero: LocalStack is ready; run 'make dev' to provision the resources of template.yaml and start the functions"
