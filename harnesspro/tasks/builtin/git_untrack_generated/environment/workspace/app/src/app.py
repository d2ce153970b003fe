from util import render

if __name__ == "__main__":
    with open("out/index.html", "w") as f:
        f.write(render({"db": "up", "queue": "degraded"}))
