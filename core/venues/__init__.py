"""The demo venue websites: demo data (data/venues/<region>.json) served as real pages on 127.0.0.1 by
``python -m core venues serve``, for the browse executor to read out of the box."""
