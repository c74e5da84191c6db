"""Generated from specs/broadcast/conformance.yaml. Do not edit."""

DATA = {'doc': 'What the strict broadcast server (`inlong-proto broadcast serve --strict FILE`) checks in the bytes '
        'a client\n'
        "sends (inlong_proto/core/conformance.py reads this table). The protocol's own rules are the spec's; "
        'the\n'
        "timing rule is the reference server's, as the seed document describes the exchange.\n",
 'rules': [{'id': 'broadcast.request-frame',
            'expects': 'every frame a client sends is a data request the spec accepts (length 37, a valid '
                       'bracketed timestamp, a known status)',
            'spec': 'specs/broadcast/broadcast_frame.ksy#data_request',
            'answer': 'the bytes are skipped up to the next valid request and the connection is served on'},
           {'id': 'broadcast.request-first',
            'expects': 'a client sends its request before the idle timeout (the server replays history only '
                       'after it)',
            'spec': 'specs/broadcast/broadcast_frame.ksy#last_timestamp',
            'answer': 'the connection is closed'}]}
