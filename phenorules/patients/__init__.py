"""Patient attribution as pure functions: who the text refers to, and who has which phenotype.

``rules`` reads the data files, ``mentions`` finds the places that refer to a patient,
``attribution`` gives each phenotype mention to the patient being talked about there.
The spaCy component ``phenorules_patients`` (``stages/patients.py``) only wires them to a Doc.
"""
