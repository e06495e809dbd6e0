#!/usr/bin/env python3
"""Translate template.yaml (SAM) into plain CloudFormation JSON, offline.

Usage: python3 infra/sam2cfn.py [template.yaml] [build/template.json]

`zero dev` provisions its local resources from the output, and CI lints it
with cfn-lint. Local CodeUri paths (the makefile build uses `.`) are replaced
by a placeholder s3:// URI, which is all the translator needs; the output is
for reading and linting, not for deploying (use `sam deploy` for that).
"""
import json
import os
import sys

from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse

PLACEHOLDER_CODE_URI = "s3://zero-placeholder/code.zip"


class NoManagedPolicies:
    """Policy loader that resolves no managed-policy names (works offline).

    The template names managed policies by ARN only, so nothing is looked up.
    """

    def load(self):
        return {}


def main(argv):
    src = argv[1] if len(argv) > 1 else "template.yaml"
    dst = argv[2] if len(argv) > 2 else os.path.join("build", "template.json")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    with open(src, encoding="utf-8") as f:
        sam = yaml_parse(f.read())
    for res in sam.get("Resources", {}).values():
        props = res.get("Properties") or {}
        uri = props.get("CodeUri")
        if res.get("Type") == "AWS::Serverless::Function" and isinstance(uri, str) and not uri.startswith("s3://"):
            props["CodeUri"] = PLACEHOLDER_CODE_URI
    cfn = transform(sam, {}, NoManagedPolicies())
    os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
    tmp = dst + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(cfn, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, dst)
    print(f"sam2cfn: {src} -> {dst}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
