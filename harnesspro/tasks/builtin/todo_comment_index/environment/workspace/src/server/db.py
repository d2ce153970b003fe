import sqlite3


def connect(path):
    # TODO(lee): pool connections
    return sqlite3.connect(path)


def migrate(conn):
    conn.execute("CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY, name TEXT)")
    # TODO(maria): add an index on users.name
    conn.commit()
