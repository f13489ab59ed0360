"""A tiny REST API for docs/guide.md (Python standard library only): todos in memory.

    python3 docs/guide/todo_api.py 8000     # serves http://127.0.0.1:8000 (loopback only)

GET /todos[?done=true|false], POST /todos {"title": ..., "done": false}, GET /todos/{id}.
docs/guide/todo.yaml describes it in OpenAPI 3.1.
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

TODOS = [{"id": 1, "title": "Read the guide", "done": True}]


class Handler(BaseHTTPRequestHandler):
    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urlparse(self.path)
        parts = url.path.strip("/").split("/")
        if parts == ["todos"]:
            done = parse_qs(url.query).get("done")
            todos = [t for t in TODOS if done is None or str(t["done"]).lower() == done[0]]
            return self.answer(200, todos)
        if len(parts) == 2 and parts[0] == "todos" and parts[1].isdigit():
            for t in TODOS:
                if t["id"] == int(parts[1]):
                    return self.answer(200, t)
            return self.answer(404, {"message": f"no todo {parts[1]}"})
        self.answer(404, {"message": "not found"})

    def do_POST(self):
        if urlparse(self.path).path != "/todos":
            return self.answer(404, {"message": "not found"})
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            todo = {"id": len(TODOS) + 1, "title": str(body["title"]), "done": bool(body.get("done", False))}
        except (ValueError, KeyError, TypeError) as e:
            return self.answer(400, {"message": f"bad todo: {e}"})
        TODOS.append(todo)
        self.answer(201, todo)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
