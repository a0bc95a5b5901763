#!/usr/bin/env python3
import json
import sys

arguments = json.load(sys.stdin)
print(json.dumps({"words": len(str(arguments.get("text", "")).split())}))
