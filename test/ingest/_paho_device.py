"""A device written with Eclipse paho-mqtt (1.x or 2.x), driven by broker-paho.test.ts.

argv: host port clientId username password deniedTopic. Over MQTT 3.1.1 it subscribes to `inbox`, waits for one
message there, publishes QoS 1 to `deniedTopic` and then to `paho/ok`, and prints one JSON line per step.
"""
import json
import sys
import threading
import time

import paho.mqtt.client as mqtt

host, port, client_id, username, password, denied = sys.argv[1:7]
events = {name: threading.Event() for name in ("connect", "subscribe", "message")}
state = {"granted": None, "message": None, "disconnects": 0}


def say(**line):
    print(json.dumps(line), flush=True)


def on_connect(*_args):
    events["connect"].set()


def on_subscribe(_client, _userdata, _mid, granted, *_rest):
    state["granted"] = [int(getattr(g, "value", g)) for g in granted]
    events["subscribe"].set()


def on_message(_client, _userdata, msg):
    state["message"] = [msg.topic, msg.payload.decode()]
    events["message"].set()


def on_disconnect(*_args):
    state["disconnects"] += 1


try:  # paho 2.x: the 1.x callback signatures above still fit VERSION2's extra trailing arguments
    client = mqtt.Client(
        mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311
    )
except AttributeError:
    client = mqtt.Client(client_id=client_id, protocol=mqtt.MQTTv311)
client.username_pw_set(username, password)
client.on_connect = on_connect
client.on_subscribe = on_subscribe
client.on_message = on_message
client.on_disconnect = on_disconnect
client.connect(host, int(port), keepalive=30)
client.loop_start()
try:
    if not events["connect"].wait(5):
        say(step="connect", ok=False)
        sys.exit(1)
    client.subscribe("inbox", qos=1)
    events["subscribe"].wait(5)
    say(step="subscribed", granted=state["granted"])
    say(step="message", received=state["message"] if events["message"].wait(5) else None)
    refused = client.publish(denied, '{"temp":1}', qos=1)
    refused.wait_for_publish(5)
    time.sleep(0.3)
    say(step="refused", acked=refused.is_published(), connected=client.is_connected())
    fine = client.publish("paho/ok", "{}", qos=1)
    fine.wait_for_publish(5)
    say(step="allowed", acked=fine.is_published(), disconnects=state["disconnects"])
finally:
    client.disconnect()
    client.loop_stop()
