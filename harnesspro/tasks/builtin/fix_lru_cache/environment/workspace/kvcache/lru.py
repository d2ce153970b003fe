"""A small least-recently-used cache with hit/miss/eviction counters."""


class LRUCache:
    def __init__(self, capacity):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self.data = {}
        self.order = []  # keys, least recently used first
        self.hits = 0
        self.misses = 0
        self.evictions = 0

    def _touch(self, key):
        """Mark `key` as the most recently used one."""
        self.order.remove(key)
        self.order.append(key)

    def get(self, key):
        """The value of `key`, or None when it is not cached."""
        if key in self.data:
            self.hits += 1
            return self.data[key]
        self.misses += 1
        return None

    def put(self, key, value):
        """Store `key`; returns the evicted key, if any."""
        evicted = None
        if len(self.data) >= self.capacity:
            evicted = self.order.pop(0)
            del self.data[evicted]
            self.evictions += 1
        if key in self.data:
            self._touch(key)
        else:
            self.order.append(key)
        self.data[key] = value
        return evicted

    def delete(self, key):
        """Remove `key`; returns whether it was cached."""
        if key in self.data:
            del self.data[key]
            return True
        return False

    def __len__(self):
        return len(self.data)
