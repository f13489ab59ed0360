"""PyPI peers in-process: python py_peers.py TOOL INPUT OUTPUT RUNS -> {"best_s": seconds} on stdout.

TOOL is marklas-adf-md (json.loads + marklas.to_md), marklas-md-adf (marklas.to_adf + json.dumps) or
markdownify (markdownify.markdownify). Best of RUNS; OUTPUT gets the last result.
"""
import json
import sys
import time

tool, input_path, output_path, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
with open(input_path, encoding="utf-8") as f:
    text = f.read()

if tool == "marklas-adf-md":
    import marklas

    def run():
        return marklas.to_md(json.loads(text))
elif tool == "marklas-md-adf":
    import marklas

    def run():
        return json.dumps(marklas.to_adf(text), ensure_ascii=False)
elif tool == "markdownify":
    import markdownify

    def run():
        return markdownify.markdownify(text)
else:
    sys.exit(f"unknown tool {tool}")

sys.setrecursionlimit(100000)
best = float("inf")
result = ""
for _ in range(runs):
    start = time.perf_counter()
    result = run()
    best = min(best, time.perf_counter() - start)
with open(output_path, "w", encoding="utf-8") as f:
    f.write(result)
print(json.dumps({"best_s": best}))
