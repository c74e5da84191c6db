# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class TubemqMessage(KaitaiStruct):
    """When the message flag's bit 0 (has attribute) is set, the data starts with the attribute text and its
    length; otherwise the data is the payload alone. The checkSum next to it is CRC32(data) & 0x7FFFFFFF
    over the whole data (attribute header included); producers send -1, "do not check".
    Quirk Q-T11: a producer with an empty (non-null) attribute sets bit 0 but writes no header, so its
    first four payload bytes are misread as attr_len by every consumer; this spec reads what is there.
    
    .. seealso::
       apache/inlong@a6c7a6a670c3 inlong-tubemq/tubemq-client/src/main/java/org/apache/inlong/tubemq/client/producer/SimpleMessageProducer.java (encodePayload), inlong-tubemq/tubemq-core/src/main/java/org/apache/inlong/tubemq/corebase/utils/MessageFlagUtils.java; docs/protocols/inlong-dataproxy-and-tubemq.md, Part 2 (section 2.10)
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(TubemqMessage, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        pass


    def _fetch_instances(self):
        pass

    class DataWithAttribute(KaitaiStruct):
        """Message data with flag bit 0 set."""
        def __init__(self, _io, _parent=None, _root=None):
            super(TubemqMessage.DataWithAttribute, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.attr_len = self._io.read_s4be()
            if not self.attr_len >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.attr_len, self._io, u"/types/data_with_attribute/seq/0")
            self.attribute = (self._io.read_bytes(self.attr_len)).decode(u"UTF-8")
            self.payload = self._io.read_bytes_full()


        def _fetch_instances(self):
            pass



