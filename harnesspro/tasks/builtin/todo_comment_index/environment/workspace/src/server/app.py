import json
import logging

# TODO(maria): read the port from the environment
PORT = 8080
log = logging.getLogger(__name__)


def handle(request):
    # TODO: this one has no owner and is not indexed
    body = json.loads(request.body)
    if "user" not in body:  # TODO(lee): return a 400 instead of raising
        raise KeyError("user")
    return body


def shutdown():
    # todo(maria): lower-case markers do not count
    log.info("bye")


def health():
    return {"ok": True}  # TODO(kai):   add the git revision   
