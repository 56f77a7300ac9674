/* This file does not say its name first, as every file must. */
/* expect: 1 OPENING */
int checksrc_sample(void);
