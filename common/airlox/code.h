/* airlox/code.h: not written yet. */
