"""Trim the ICU data linked into a Node binary, in place, so that it compresses to 6-7 MB less.

`python3 trim-icu.py NODE` (scripts/gpu-run/pack.sh): Node is built with full ICU, 33 MB of
locale data (icudt*_dat, an ICU common data package), 8 MB of the 21 MB the binary takes xz'd.
The loop's processes format numbers and dates in English at most, so the package keeps its
root and English locales and every item that is no locale (normalization, properties, time zones,
plural rules, break rules); it loses the other locales' data, the dictionaries of the break
iterators (Chinese, Japanese, Thai, Lao, Khmer, Burmese) and the legacy charset converters. A
dropped item is taken out of the package's table of contents and its bytes are zeroed: ICU then
finds it missing, as in a build without it, and falls back to root (an `Intl` call for German gets
English). The binary keeps its size and layout; only zeros compress to nothing.
"""

import re
import struct
import sys

# The common data package's header: headerSize 0x90, magic 0xda27, UDataInfo (size 20, little
# endian, ASCII, 2-byte UChar) with the data format "CmnD".
SIGNATURE = b"\x90\x00\xda\x27\x14\x00\x00\x00\x00\x00\x02\x00CmnD"
LOCALE = re.compile(r"^[a-z]{2,3}(_[A-Za-z0-9]+)*\.res$")


def keep(name: str) -> bool:
    """Whether a package item (e.g. `icudt78l/coll/de.res`) stays."""
    item = name.split("/", 1)[1] if "/" in name else name
    base = item.rsplit("/", 1)[-1]
    if base.endswith(".cnv") or base.endswith(".dict"):
        return False
    if base in ("root.res", "res_index.res", "pool.res") or not LOCALE.match(base):
        return True
    return base.startswith("en.") or base.startswith("en_")


def trim(blob: bytearray, start: int) -> tuple[int, int, int]:
    """Trim the package at `start`; (items kept, items dropped, bytes zeroed)."""
    header = struct.unpack_from("<H", blob, start)[0]
    toc = start + header
    count = struct.unpack_from("<I", blob, toc)[0]
    entries = [struct.unpack_from("<II", blob, toc + 4 + 8 * i) for i in range(count)]
    names = []
    for name_offset, _ in entries:
        at = start + header + name_offset
        names.append(bytes(blob[at : blob.index(b"\0", at)]).decode("ascii"))
    offsets = sorted(data for _, data in entries)
    end_of = {data: offsets[i + 1] for i, data in enumerate(offsets[:-1])}
    kept = []
    zeroed = 0
    for (name_offset, data), name in zip(entries, names):
        # The last item's end is not recorded: it always stays.
        if keep(name) or data not in end_of:
            kept.append((name_offset, data))
            continue
        blob[start + header + data : start + header + end_of[data]] = bytes(end_of[data] - data)
        zeroed += end_of[data] - data
    # The table of contents keeps its sorted order; the names it no longer lists stay in place.
    struct.pack_into("<I", blob, toc, len(kept))
    for i, (name_offset, data) in enumerate(kept):
        struct.pack_into("<II", blob, toc + 4 + 8 * i, name_offset, data)
    blob[toc + 4 + 8 * len(kept) : toc + 4 + 8 * count] = bytes(8 * (count - len(kept)))
    return len(kept), count - len(kept), zeroed


def main() -> None:
    path = sys.argv[1]
    with open(path, "rb") as handle:
        blob = bytearray(handle.read())
    start = blob.find(SIGNATURE)
    if start < 0 or blob.find(SIGNATURE, start + 1) >= 0:
        sys.exit(f"{path}: not exactly one ICU common data package in it; left as it is")
    kept, dropped, zeroed = trim(blob, start)
    with open(path, "wb") as handle:
        handle.write(blob)
    print(f"ICU data: {kept} items kept, {dropped} dropped, {zeroed / 2**20:.1f} MiB zeroed")


if __name__ == "__main__":
    main()
