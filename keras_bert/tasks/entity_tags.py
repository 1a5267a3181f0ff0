"""How an entity tag reads: its scheme letter and entity type (`entity_spans` and the `entities` signature)."""


def split_tag(tag, outside):
    """`"B-PER"` -> `("B", "PER")`; the outside label -> `("O", "")`; a bare label is inside (IO)."""
    if tag == outside:
        return "O", ""
    if len(tag) > 1 and tag[1] == "-" and tag[0] in "BIES":
        return tag[0], tag[2:]
    return "I", tag
