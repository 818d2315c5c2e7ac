#!/usr/bin/env python3
"""Write report_assets.c: the files the HTML report inlines, as byte arrays (render/report_assets.h).

usage: embed.py OUTPUT.c NAME=PATH ...   (PATH '-': not found, the asset is empty;
                                          a NAME given again: its files joined in order)

An inlined file must not end its element nor load anything: a '</script' or
'</style' in it, or an http:// or https:// address outside its leading license
comment, fails the build. Addresses in that comment lose their scheme (the
page then holds no address a browser could fetch).
"""
import re
import sys


def clean(name, data):
    text = data.decode("utf-8")
    if text.startswith("/*"):
        end = text.find("*/")
        if end > 0:
            text = re.sub(r"https?://", "", text[:end]) + text[end:]
    if re.search(r"</(script|style)", text, re.I):
        sys.exit("embed.py: %s holds '</script' or '</style': it cannot be inlined" % name)
    found = re.search(r"https?://\S{0,40}", text)
    if found:
        sys.exit("embed.py: %s refers to %s: the report must load nothing" % (name, found.group(0)))
    return text.encode("utf-8")


def main():
    out = sys.argv[1]
    lines = ["/* The files the HTML report inlines, written by render/embed.py at build time. */",
             '#include "render/report_assets.h"', ""]
    assets = {}
    for arg in sys.argv[2:]:
        name, path = arg.split("=", 1)
        data = b""
        if path != "-":
            with open(path, "rb") as f:
                data = clean(path.rsplit("/", 1)[-1], f.read())
        assets[name] = assets.get(name, b"") + data
    for name, data in assets.items():
        lines.append("static const unsigned char %s_data[] = {" % name)
        for i in range(0, len(data), 24):
            lines.append("\t" + ",".join(str(b) for b in data[i:i + 24]) + ",")
        lines.append("\t0};")
        lines.append('const struct rt_report_asset rt_report_%s = {"%s", %s_data, %d};'
                     % (name, name, name, len(data)))
        lines.append("")
    with open(out, "w") as f:
        f.write("\n".join(lines))


main()
