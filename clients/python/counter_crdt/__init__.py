"""counter_crdt for Python: the CounterState value and the adapters of the
drivers and ORMs (counter_crdt.psycopg, .psycopg2, .asyncpg, .sqlalchemy,
.django, .peewee), each imported on its own so that only the driver in use is
needed.
"""
from .state import CounterState, Fold, Shard

__all__ = ["CounterState", "Shard", "Fold", "merge"]
__version__ = "0.2.0"


def merge(a, b):
    """merge(a, b) of two CounterStates, as counter_crdt_merge computes it."""
    return a.merge(b)
