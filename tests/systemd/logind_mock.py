# SPDX-License-Identifier: MIT
"""Drives python3-dbusmock's logind template for socket_activation.sh:
  ping                    the mock is on the (private) system bus
  seat                    seat0 exists, with no active session
  session TYPE DISPLAY    seat0 gets an active session of that type and display
Run with Debian's python3 and DBUS_SYSTEM_BUS_ADDRESS set."""
import sys

import dbus

bus = dbus.SystemBus()
manager = bus.get_object("org.freedesktop.login1", "/org/freedesktop/login1")
mock = dbus.Interface(manager, "org.freedesktop.DBus.Mock")

if sys.argv[1] == "ping":
    dbus.Interface(manager, "org.freedesktop.DBus.Introspectable").Introspect()
elif sys.argv[1] == "seat":
    mock.AddSeat("seat0")
elif sys.argv[1] == "session":
    kind, display = sys.argv[2], sys.argv[3]
    try:
        mock.AddSeat("seat0")
    except dbus.exceptions.DBusException:
        pass  # already there
    sid = "s" + kind
    path = mock.AddSession(sid, "seat0", dbus.UInt32(1000), "desk", True)
    session = bus.get_object("org.freedesktop.login1", path)
    props = dbus.Interface(session, "org.freedesktop.DBus.Properties")
    props.Set("org.freedesktop.login1.Session", "Type", kind)
    props.Set("org.freedesktop.login1.Session", "Display", display)
