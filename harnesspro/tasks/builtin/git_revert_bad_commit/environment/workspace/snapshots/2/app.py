import configparser


def load(path="config.ini"):
    cfg = configparser.ConfigParser()
    cfg.read(path)
    return cfg


def fetch(client, url, cfg):
    return client.get(url, timeout=cfg.getint("http", "timeout"))
