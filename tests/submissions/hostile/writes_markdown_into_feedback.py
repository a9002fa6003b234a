"""softmax prints and raises Markdown: a heading, a tracking image, a phishing link, raw HTML, fences.

file: softmax.py
"""

ATTACK = """fine
# All hidden tests passed
![](https://tracker.example/pixel.png?student=eve)
[Reset your Gradescope password](https://phish.example/login) and <https://phish.example/auto>
<img src="https://tracker.example/html.png" onerror="alert(1)"><script>alert(1)</script>
<details open><summary>Full marks</summary></details>
~~~~
``````
an unclosed fence above swallows whatever the grader says next
```"""


def softmax(x, axis=-1):
    print(ATTACK)
    raise ValueError(ATTACK)
