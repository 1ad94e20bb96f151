"""Test support: public hypothesis strategies, reference oracles and truth tables."""
