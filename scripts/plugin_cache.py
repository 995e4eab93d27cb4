#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The plugin's documentation cache, in the form of GStreamer's
gst_plugins_cache.json, made from the built plugin: every element with its
metadata, pad templates and properties (blurb, type, range, default, flags),
and the enums they use.

    scripts/plugin_cache.py            print it
    scripts/plugin_cache.py --write F  write it to F
    scripts/plugin_cache.py --check F  exit 1 (with a diff) when F is stale

The plugin comes from GST_PLUGIN_PATH as GStreamer finds it."""
import argparse
import difflib
import json
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GObject, Gst  # noqa: E402

PLUGIN = "cudafilters"


def value_text(value):
    """A property value as the cache writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (GObject.GEnum, GObject.GFlags)):
        return value.value_nick
    return str(value)


def default_of(pspec):
    """The default value; an enum's as its enum value, which newer
    PyGObject (3.50) gives as a plain int."""
    value = pspec.default_value
    if (GObject.type_is_a(pspec.value_type, GObject.TYPE_ENUM)
            and not isinstance(value, GObject.GEnum)):
        value = pspec.value_type.pytype(value)
    return value


def mutability(flags):
    if flags & Gst.PARAM_MUTABLE_PLAYING:
        return "playing"
    if flags & Gst.PARAM_MUTABLE_PAUSED:
        return "paused"
    if flags & Gst.PARAM_MUTABLE_READY:
        return "ready"
    return "null"


def describe_property(pspec, enums):
    flags = pspec.flags
    entry = {
        "blurb": pspec.blurb,
        "conditionally-available": False,
        "construct": bool(flags & GObject.ParamFlags.CONSTRUCT),
        "construct-only": bool(flags & GObject.ParamFlags.CONSTRUCT_ONLY),
        "controllable": bool(flags & Gst.PARAM_CONTROLLABLE),
        "default": value_text(default_of(pspec)),
        "mutable": mutability(flags),
        "readable": bool(flags & GObject.ParamFlags.READABLE),
        "type": GObject.type_name(pspec.value_type),
        "writable": bool(flags & GObject.ParamFlags.WRITABLE),
    }
    for bound in ("minimum", "maximum"):
        if hasattr(pspec, bound):
            entry["min" if bound == "minimum" else "max"] = value_text(
                getattr(pspec, bound))
    if GObject.type_is_a(pspec.value_type, GObject.TYPE_ENUM):
        enums.add(pspec.value_type)
    return entry


def describe_enum(gtype):
    values = []
    pytype = gtype.pytype
    for number in sorted(pytype.__enum_values__):
        v = pytype.__enum_values__[number]
        values.append({"desc": v.value_name, "name": v.value_nick,
                       "value": str(int(number))})
    return {"kind": "enum", "values": values}


def describe_element(factory, enums):
    element = factory.create(None)
    templates = {}
    for t in factory.get_static_pad_templates():
        templates[t.name_template] = {
            "caps": t.get_caps().to_string().replace("; ", ";\n"),
            "direction": "sink" if t.direction == Gst.PadDirection.SINK
            else "src",
            "presence": {Gst.PadPresence.ALWAYS: "always",
                         Gst.PadPresence.SOMETIMES: "sometimes",
                         Gst.PadPresence.REQUEST: "request"}[t.presence],
        }
    properties = {}
    for pspec in element.list_properties():
        if pspec.owner_type in (GObject.Object.__gtype__,
                                Gst.Object.__gtype__):
            continue            # name and parent, as the cache leaves out
        if GObject.type_is_a(pspec.value_type, GObject.TYPE_ENUM):
            # newer PyGObject (3.50) makes an enum's Python class only once
            # a value of it has been read
            element.get_property(pspec.name)
        properties[pspec.name] = describe_property(pspec, enums)
    hierarchy = []
    gtype = type(element).__gtype__
    while True:
        hierarchy.append(GObject.type_name(gtype))
        if gtype == GObject.TYPE_OBJECT:
            break
        gtype = GObject.type_parent(gtype)
    return {
        "author": factory.get_metadata("author"),
        "description": factory.get_metadata("description"),
        "hierarchy": hierarchy,
        "klass": factory.get_metadata("klass"),
        "long-name": factory.get_metadata("long-name"),
        "pad-templates": templates,
        "properties": properties,
        "rank": "none" if factory.get_rank() == 0 else str(factory.get_rank()),
    }


def build_cache():
    Gst.init(None)
    plugin = Gst.Registry.get().find_plugin(PLUGIN)
    if plugin is None:
        sys.exit(f"no plugin '{PLUGIN}': set GST_PLUGIN_PATH to its folder")
    enums = set()
    elements = {}
    for feature in Gst.Registry.get().get_feature_list_by_plugin(PLUGIN):
        if isinstance(feature, Gst.ElementFactory):
            elements[feature.get_name()] = describe_element(feature, enums)
    return {PLUGIN: {
        "description": plugin.get_description(),
        "elements": elements,
        "filename": "gstcudafilters",
        "license": plugin.get_license(),
        "other-types": {GObject.type_name(t): describe_enum(t)
                        for t in enums},
        "package": plugin.get_package(),
        "source": plugin.get_source(),
        "tracers": {},
        "url": plugin.get_origin(),
    }}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write")
    parser.add_argument("--check")
    args = parser.parse_args()
    text = json.dumps(build_cache(), indent=4, sort_keys=True) + "\n"
    if args.write:
        with open(args.write, "w", encoding="utf-8") as f:
            f.write(text)
    elif args.check:
        with open(args.check, encoding="utf-8") as f:
            old = f.read()
        if old != text:
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), text.splitlines(True), args.check,
                "the built plugin"))
            print(f"{args.check} is stale: scripts/plugin_cache.py --write "
                  f"{args.check}")
            return 1
        print(f"{args.check}: up to date")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
