"""Arrow column helpers the columnar outputs share (whole_files' JSON lines and CSV checks, packet_list's
table): text buffers read in place, and an auto batch's rows said per protocol."""
from __future__ import annotations

from inlong_proto.core import arrow, protocols


def text_offsets(column):
    """The value offsets of a text array (numpy, len + 1 of them), read from its buffer in place."""
    import numpy as np
    import pyarrow as pa

    width = np.int64 if pa.types.is_large_string(column.type) else np.int32
    return np.frombuffer(column.buffers()[1], width, len(column) + 1, column.offset * np.dtype(width).itemsize)


def text_bytes(column):
    """The UTF-8 bytes of a text array's values, end to end (numpy uint8)."""
    import numpy as np

    ends = text_offsets(column)
    size = int(ends[-1] - ends[0])
    return np.frombuffer(column.buffers()[2], np.uint8, size, int(ends[0])) if size else np.zeros(0, np.uint8)


def by_protocol(batch, say):
    """An auto_schema batch's rows (with capture_items' ITEM_COLUMNS) as text, one per row in row order:
    each protocol's rows taken out of its struct into that protocol's frame columns (frame_schema's names)
    and said by say(rows, name), an Arrow text array or None; None where say gives None or a row is of no
    registered protocol."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    meta = [name for name, _ in arrow.META_COLUMNS]
    rest = [arrow.CAPTURE_COLUMN, *(name for name in batch.schema.names if name in ("flow_number", "timestamp_ns"))]
    names = batch.column("protocol").to_numpy(zero_copy_only=False)
    parts, order = [], []
    for name in np.unique(names.astype(str)).tolist():
        if name not in protocols.every_name():
            return None
        rows = pa.array(np.flatnonzero(names == name))
        own = batch.take(rows)
        frame = own.column(protocols.column_name(name))
        fields = list(frame.type)
        columns = ([own.column(column) for column in meta] + [pc.struct_field(frame, [index]) for index in
                                                              range(len(fields))]
                   + [own.column(column) for column in rest])
        said = say(pa.RecordBatch.from_arrays(columns, [*meta, *(field.name for field in fields), *rest]), name)
        if said is None:
            return None
        parts.append(said)
        order.append(rows.to_numpy())
    if len(parts) == 1:
        return parts[0]
    return pa.concat_arrays(parts).take(pa.array(np.argsort(np.concatenate(order), kind="stable")))
