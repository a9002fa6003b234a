"""The window reaches one key too far back: j >= i - window.

file: masks.py
breaks: sliding_window_mask
"""


def sliding_window_mask(n, window):
    mask = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(n):
            if i - window <= j <= i:
                mask[i, j] = True
    return mask
