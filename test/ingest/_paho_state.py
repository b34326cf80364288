"""A device's state handled with Eclipse paho-mqtt (1.x or 2.x), driven by broker-paho-state.test.ts.

argv: host port clientId username password. Over MQTT 3.1.1 it subscribes to `state/delta` and `state/document`,
waits for the delta the service pushes on that subscription, reports the delta's values on `state/reported`
(QoS 1), asks for its document with `state/get` and prints one JSON line per step.
"""
import json
import sys
import threading

import paho.mqtt.client as mqtt

host, port, client_id, username, password = sys.argv[1:6]
connected = threading.Event()
got = {"state/delta": [], "state/document": []}
arrived = {topic: threading.Event() for topic in got}


def say(**line):
    print(json.dumps(line), flush=True)


def on_connect(*_args):
    connected.set()


def on_message(_client, _userdata, msg):
    if msg.topic in got:
        got[msg.topic].append(json.loads(msg.payload.decode()))
        arrived[msg.topic].set()


try:  # paho 2.x: the 1.x callback signatures above still fit VERSION2's extra trailing arguments
    client = mqtt.Client(
        mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311
    )
except AttributeError:
    client = mqtt.Client(client_id=client_id, protocol=mqtt.MQTTv311)
client.username_pw_set(username, password)
client.on_connect = on_connect
client.on_message = on_message
client.connect(host, int(port), keepalive=30)
client.loop_start()
try:
    if not connected.wait(5):
        say(step="connect", ok=False)
        sys.exit(1)
    client.subscribe([("state/delta", 1), ("state/document", 1)])
    delta = got["state/delta"][0] if arrived["state/delta"].wait(3) else None
    say(step="delta", message=delta)
    if delta:
        report = client.publish("state/reported", json.dumps(delta["delta"]), qos=1)
        report.wait_for_publish(5)
        say(step="reported", acked=report.is_published())
    ask = client.publish("state/get", json.dumps({"clientToken": "paho-1"}), qos=1)
    ask.wait_for_publish(5)
    document = got["state/document"][0] if arrived["state/document"].wait(3) else None
    say(step="document", message=document)
finally:
    client.disconnect()
    client.loop_stop()
