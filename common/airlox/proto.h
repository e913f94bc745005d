/* airlox/proto.h: not written yet. */
