"""softmax prints a script and raises an image whose onerror runs one: each would mark the page it runs in.

file: softmax.py
"""

PRINTED = "</pre></section><script>document.body.dataset.pwned = 'printed'</script>"
RAISED = "<img src=\"x\" onerror=\"document.body.dataset.pwned = 'raised'\"></td><svg onload=\"document.body.dataset.pwned = 'svg'\">"


def softmax(x, axis=-1):
    print(PRINTED)
    raise ValueError(RAISED)
