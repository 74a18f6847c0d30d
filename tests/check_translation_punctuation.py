#!/usr/bin/env python3
"""Fails where a Chinese translation puts a half-width comma, semicolon, colon or question mark
right after a Chinese character, or opens a half-width parenthesis there: Chinese text takes
the full-width ones (，；：？（）). Mnemonics keep Qt's half-width "(&F)".
    check_translation_punctuation.py TS_FILE"""
import html
import re
import sys
import xml.etree.ElementTree as ET

CJK = "\u4e00-\u9fff"
# after a Chinese character; or after a placeholder, a percent sign or a closing parenthesis
# and before Chinese words ("%1: 第", "%2 %, 以"); a half-width parenthesis opened after Chinese
BAD = re.compile("[" + CJK + "][,;:?]|[%）][,;:?] ?(?=[" + CJK + "])|%\\d[,;:?] ?(?=[" + CJK + "])|"
                 "[" + CJK + "] ?\\((?!&)|^[,;:?]")

bad = []
for message in ET.parse(sys.argv[1]).getroot().iter("message"):
    translation = message.find("translation")
    if translation is None:
        continue
    texts = [translation.text or ""] + [f.text or "" for f in translation.iter("numerusform")]
    for text in texts:
        for m in BAD.finditer(html.unescape(text)):
            bad.append("%r in %r" % (m.group(0), text))
for line in bad:
    print("half-width punctuation after Chinese: " + line)
if bad:
    print("%d translation(s) to mend in %s" % (len(bad), sys.argv[1]))
    sys.exit(1)
print("Chinese punctuation full-width in every translation")
