"""Memory made resident when it is allocated, not during the first search."""
from typing import Iterable

import numpy as np

PAGE_BYTES = 4096


def touch_pages(arrays: Iterable[np.ndarray]) -> None:
    """Write one element of every memory page of each array (its own value: nothing changes).
    A fresh numpy array is mapped to the operating system's zero page until it is written,
    and the first search would pay a page fault for every page it touches: with a 64 MB
    table the first searches after start-up ran at a few hundred nodes a second."""
    for array in arrays:
        if isinstance(array, np.ndarray) and array.size and array.flags.writeable:
            pages = array.reshape(-1)[::max(1, PAGE_BYTES // array.itemsize)]
            pages[...] = pages.copy()   # from a copy: numpy skips assigning a view to itself
