"""XML parsing for untrusted observations: no DTDs, no entities, no network, no huge trees.

Observations are written by models or recorded from devices; an XXE payload must not read local
files and an entity bomb must not eat memory, so documents that declare a DTD are refused outright
and the parser itself is configured not to resolve or fetch anything either.
"""

from __future__ import annotations

import re

from lxml import etree

_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
_DTD = re.compile(r"<!DOCTYPE|<!ENTITY", re.IGNORECASE)


class UnsafeXMLError(ValueError):
    """The document declares a DTD or entities, which observations never need."""


def parse_xml(text: str) -> etree._Element:
    """Parse `text` as XML and return the root element.

    Tolerates what real uiautomator dumps contain: a byte-order mark, an XML declaration naming an
    encoding (the text is already decoded), CRLF line ends and a trailer after the last tag.

    Raises:
        UnsafeXMLError: the document has a DOCTYPE or ENTITY declaration.
        ValueError: the text is not well-formed XML.

    """
    text = _DECLARATION.sub("", text.lstrip("\ufeff"), count=1)
    if _DTD.search(text):
        raise UnsafeXMLError("XML with a DTD or entity declarations is not rendered.")
    end = text.rfind(">")
    parser = etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )
    try:
        return etree.fromstring(text[: end + 1].strip(), parser)
    except etree.XMLSyntaxError as exc:
        raise ValueError(f"not well-formed XML: {exc}") from None
