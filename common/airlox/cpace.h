/* airlox/cpace.h: not written yet. */
