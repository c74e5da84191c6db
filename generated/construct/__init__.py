"""The official Kaitai Struct compiler's construct output, made importable by tools/ksygen/references.py.
Generated. Do not edit."""

# spec id -> why its module cannot be imported (the compiler wrote ??? for what its target lacks)
INCOMPLETE = {
    'dataproxy_common': "the official compiler's construct output for dataproxy_common is incomplete (it has no equivalent for some construct, e.g. bit fields; see construct/dataproxy_common.incomplete)",
    'dataproxy_request': "the official compiler's construct output for dataproxy_request is incomplete (it has no equivalent for some construct, e.g. bit fields; see construct/dataproxy_request.incomplete)",
    'dataproxy_response': "the official compiler's construct output for dataproxy_response is incomplete (it has no equivalent for some construct, e.g. bit fields; see construct/dataproxy_response.incomplete)",
    'ethernet_frame': "the official compiler's construct output for ethernet_frame is incomplete (it has no equivalent for some construct, e.g. bit fields; see construct/ethernet_frame.incomplete)",
    'http2_frame': "the official compiler's construct output for http2_frame is incomplete (it has no equivalent for some construct, e.g. bit fields; see construct/http2_frame.incomplete)",
    'ipv4_packet': "the official compiler's construct output for ipv4_packet is incomplete (it has no equivalent for some construct, e.g. bit fields; see construct/ipv4_packet.incomplete)",
    'ipv6_packet': "the official compiler's construct output for ipv6_packet is incomplete (it has no equivalent for some construct, e.g. bit fields; see construct/ipv6_packet.incomplete)",
    'raw_ip': "the official compiler's construct output for raw_ip is incomplete (it has no equivalent for some construct, e.g. bit fields; see construct/raw_ip.incomplete)",
    'tcp_segment': "the official compiler's construct output for tcp_segment is incomplete (it has no equivalent for some construct, e.g. bit fields; see construct/tcp_segment.incomplete)",
}
