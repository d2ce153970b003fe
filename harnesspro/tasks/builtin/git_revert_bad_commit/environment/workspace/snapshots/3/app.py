import configparser


def load(path="config.ini"):
    cfg = configparser.ConfigParser()
    cfg.read(path)
    return cfg


def fetch(client, url, cfg):
    attempts = cfg.getint("limits", "retries", fallback=1)
    for attempt in range(attempts):
        try:
            return client.get(url, timeout=cfg.getint("http", "timeout"))
        except OSError:
            if attempt == attempts - 1:
                raise
