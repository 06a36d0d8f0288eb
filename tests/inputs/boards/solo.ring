1 solo
