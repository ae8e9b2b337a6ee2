"""The strategy lab page's components."""
