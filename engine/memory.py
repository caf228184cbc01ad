"""Memory made resident when it is allocated, not during the first search; how much there is."""
import os
from typing import Iterable, Optional

import numpy as np

PAGE_BYTES = 4096


def physical_memory_mb() -> Optional[int]:
    """The machine's memory in MB (None where the system does not say). A table larger than
    this would be allocated (Linux promises memory it does not have) and then get the
    process killed when touch_pages writes it."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (AttributeError, ValueError, OSError):
        return None


def touch_pages(arrays: Iterable[np.ndarray]) -> None:
    """Write one element of every memory page of each array (its own value: nothing changes).
    A fresh numpy array is mapped to the operating system's zero page until it is written,
    and the first search would pay a page fault for every page it touches: with a 64 MB
    table the first searches after start-up ran at a few hundred nodes a second."""
    for array in arrays:
        if isinstance(array, np.ndarray) and array.size and array.flags.writeable:
            pages = array.reshape(-1)[::max(1, PAGE_BYTES // array.itemsize)]
            pages[...] = pages.copy()   # from a copy: numpy skips assigning a view to itself
